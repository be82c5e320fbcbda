from app.layers import forward

forward()
