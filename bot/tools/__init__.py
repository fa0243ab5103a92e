"""Operator tools that run the bot from outside (``python -m bot loadtest``)."""
