def select(args):
    if args.attention_backend == "fa3":
        return "flash"
    return "triton"
