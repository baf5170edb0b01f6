"""Digest runs: generating a digest's sections (now, in the background, at a set time, by cron)."""
