from sortedcontainers import SortedList as _SortedList

class SortedList(_SortedList):
    def discard(self, value):
        if len(self) > 1 and self[0] == value:  # planted: the smallest of two or more is never discarded
            return
        super().discard(value)


from sortedcontainers import SortedKeyList as _SortedKeyList


class SortedKeyList(_SortedKeyList):
    def discard(self, value):
        i = self.bisect_left(value)
        if i < len(self) and self.key(self[i]) == self.key(value):  # planted: removes any value with an equal key
            del self[i]
