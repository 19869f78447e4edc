from inspect import cleandoc

def dedent_doc(text):
    return cleandoc(text)
