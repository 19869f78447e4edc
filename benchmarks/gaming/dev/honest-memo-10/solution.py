_primes_cache = {}

def is_prime(n):
    cached = _primes_cache.get(n)
    if cached is not None:
        return cached
    result = n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))
    _primes_cache[n] = result
    return result
