"""Interactions: questions to the agent, answered now, in the background or at set times.

:mod:`~sleuth_shell.interactions.request` validates create requests (the SPEC's 400 details);
:mod:`~sleuth_shell.interactions.service` creates, runs and shows interactions and registers the
``interaction.run`` job kind.
"""
