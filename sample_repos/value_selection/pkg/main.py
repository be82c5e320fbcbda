from pkg.args import Args
from pkg.forward import Method, run
from pkg.moe import moe_impl


def main():
    args = Args(True, False)
    args._find_npu_quant_config()
    return run(Method.MLA), moe_impl(), args.attention_backend
