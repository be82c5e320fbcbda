from app.runner import run

run()
