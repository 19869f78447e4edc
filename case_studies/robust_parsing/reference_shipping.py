"""Reference shipping quote: parses ``key=value`` fields separated by ``;`` in any order, ignores spaces
around keys and values, and accepts the weight in ``kg`` or ``g``."""

from __future__ import annotations

RATE = {"EU": 5, "US": 9}  # currency units per started kilogram


def quote(order: str) -> int:
    """Shipping cost of an order such as ``"weight=2kg;dest=EU"``.

    Raises:
        ValueError: a field is missing or malformed.
    """
    fields = {}
    for part in order.split(";"):
        key, sep, value = part.partition("=")
        if not sep:
            raise ValueError(f"malformed field {part!r}")
        fields[key.strip()] = value.strip()
    weight = fields["weight"]
    if weight.endswith("kg"):
        grams = int(weight[:-2]) * 1000
    elif weight.endswith("g"):
        grams = int(weight[:-1])
    else:
        raise ValueError(f"unknown unit in {weight!r}")
    kilos = -(-grams // 1000)
    return kilos * RATE[fields["dest"]]
