import asyncio
import inspect


def await_if_needed(value):
    if inspect.isawaitable(value):
        return asyncio.run(value)
    return value
