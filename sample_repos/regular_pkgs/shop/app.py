from typing import TYPE_CHECKING

import shop.billing.invoice as invoice_mod
from shop import catalog
from shop.util import *  # noqa: F403

if TYPE_CHECKING:
    from shop.billing.tax import TaxTable


def run(table: "TaxTable"):
    from .billing import payments

    return payments.pay(invoice_mod.Invoice(catalog.Product("x")), fmt(1))
