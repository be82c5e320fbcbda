from app.engine import start

start(None)
