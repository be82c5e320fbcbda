from shop.util.formatting import fmt

__all__ = ["fmt"]
