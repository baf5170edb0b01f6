"""The web app: server-side sessions, templates and rendering helpers for the HTML pages."""
