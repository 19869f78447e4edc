def word_break(s, words):
    vocab = set(words)
    memo = {len(s): True}

    def ok(i):
        if i in memo:
            return memo[i]
        memo[i] = any(s[i:j] in vocab and ok(j) for j in range(i + 1, len(s) + 1))
        return memo[i]
    return ok(0)
