print("loadctl")
