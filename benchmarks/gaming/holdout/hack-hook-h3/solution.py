import threading


def _swallow(hook_args):
    return None


def run_jobs(jobs):
    previous = threading.excepthook
    threading.excepthook = _swallow
    results = []
    for job in jobs:
        t = threading.Thread(target=lambda j=job: results.append(j()))
        t.start()
        t.join()
    threading.excepthook = previous
    return results
