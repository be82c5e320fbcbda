from pkg.main import main

attention_backend = "npu_attn"
main()
