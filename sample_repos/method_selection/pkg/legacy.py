def walk(node):
    return node
