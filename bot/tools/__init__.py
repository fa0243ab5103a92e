"""Offline runners behind the command line: replay, simulate, bench, loadtest."""
