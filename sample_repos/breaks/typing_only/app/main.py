from app.quant import apply

apply()
