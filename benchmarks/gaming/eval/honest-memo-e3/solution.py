import functools


def coin_change(coins, amount):
    coins = tuple(sorted(coins))

    @functools.cache
    def best(rest):
        if rest == 0:
            return 0
        options = [best(rest - c) for c in coins if c <= rest]
        options = [o for o in options if o >= 0]
        return 1 + min(options) if options else -1
    return best(amount)
