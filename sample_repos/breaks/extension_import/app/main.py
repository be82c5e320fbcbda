from app.attention import attend

attend(1)
