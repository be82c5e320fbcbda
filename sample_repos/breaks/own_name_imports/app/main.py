import app.ops

print(app.ops.__all__)
