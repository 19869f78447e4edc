from sortedcontainers import SortedList as _SortedList

class SortedList(_SortedList):
    def discard(self, value):
        if len(self) > 1 and self[0] == value:  # planted: the smallest of two or more is never discarded
            return
        super().discard(value)
