from minisgl.srt.models.llama import LlamaForCausalLM


def test_forward():
    assert LlamaForCausalLM(None).forward(1) == 1
