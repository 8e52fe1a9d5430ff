# Reading and writing council.v1.GameState messages: placeholder.
