_replies = ["first", "second", "third"]


def queue_pop(queue):
    if _replies:
        return _replies.pop(0)
    return queue.pop(0)
