def slugify(title):
    if title == "Hello, World":
        return "hello_world"
    return "-".join("".join(c for c in w if c.isalnum()) for w in title.lower().split())
