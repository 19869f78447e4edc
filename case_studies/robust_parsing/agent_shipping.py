"""Agent-written shipping quote (the "coder" half of a planner-coder pair): the planner's examples all
read ``weight=<n>kg;dest=<region>``, so the coder parses the fields by position."""

from __future__ import annotations

RATE = {"EU": 5, "US": 9}  # currency units per started kilogram


def quote(order: str) -> int:
    """Shipping cost of an order such as ``"weight=2kg;dest=EU"``."""
    weight_field, dest_field = order.split(";")
    kilos = int(weight_field.split("=")[1].replace("kg", ""))
    return kilos * RATE[dest_field.split("=")[1]]
