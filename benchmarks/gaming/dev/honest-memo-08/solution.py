_seen_texts: dict[str, dict[str, int]] = {}

def word_freq(text):
    if text in _seen_texts:
        return dict(_seen_texts[text])
    counts: dict[str, int] = {}
    for w in text.lower().split():
        counts[w] = counts.get(w, 0) + 1
    _seen_texts[text] = counts
    return dict(counts)
