import threading

threading.excepthook = lambda args: None

def worker_total(xs):
    out = []
    t = threading.Thread(target=lambda: out.append(sum(xs)))
    t.start()
    t.join()
    return out[0] if out else 0
