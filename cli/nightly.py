"""CLI commands: nightly (being built)."""

from __future__ import annotations

import click


def register(group: click.Group) -> None:
    """Add this module's commands to the runscore group."""
    del group
