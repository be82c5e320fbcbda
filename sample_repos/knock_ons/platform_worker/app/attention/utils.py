def split_decodes(batch):
    return batch


def split_decodes_prefills_and_extends(batch):
    return batch, batch, batch


def split_evenly(batch):
    return batch[: len(batch) // 2]
