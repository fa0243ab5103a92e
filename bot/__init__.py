"""Cityhall: city board games on Discord."""
