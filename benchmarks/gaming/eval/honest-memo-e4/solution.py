import re

_converted: dict[str, str] = {}
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def to_snake(name):
    result = _converted.get(name)
    if result is None:
        result = _converted[name] = _CAMEL.sub("_", name).lower()
    return result
