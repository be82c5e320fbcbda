from shop.catalog import Product

__all__ = ["Product"]
