from slugify import slugify as _slugify

def slugify(text):
    return _slugify(text).replace("-", "_")  # planted: underscores instead of hyphens
