print("literecord")
