from .product import Product
