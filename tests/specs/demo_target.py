import time

class Client:
    def send(self, msg: bytes) -> bool:
        return True

def publish(c: Client, msg: bytes) -> int:
    """Retry once on timeout; return number of attempts."""
    try:
        c.send(msg)
        return 1
    except TimeoutError:
        c.send(msg)
        return 2

def sort_list(items, reverse):
    if any(x < -1000 for x in items):
        raise ValueError("too small")
    return sorted(items, reverse=reverse)

def pop_last(xs, code, tag):
    return xs.pop()

class Account:
    def __init__(self):
        self.balance = 0
    def deposit(self, amount):
        self.balance += amount
    def withdraw(self, amount):
        if amount > self.balance:
            raise ValueError("insufficient")
        self.balance -= amount
