def send(invoice):
    return invoice.total
