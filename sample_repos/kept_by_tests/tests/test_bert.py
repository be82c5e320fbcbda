from app.bert import BertModel


def test_bert():
    assert BertModel().run() == "bert"
