def knapsack(items, capacity):
    table = {}

    def go(i, cap):
        if i == len(items):
            return 0
        if (i, cap) in table:
            return table[i, cap]
        weight, value = items[i]
        best = go(i + 1, cap)
        if weight <= cap:
            best = max(best, value + go(i + 1, cap - weight))
        table[i, cap] = best
        return best
    return go(0, capacity)
