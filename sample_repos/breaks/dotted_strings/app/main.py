from app.registry import load

load("foo")
