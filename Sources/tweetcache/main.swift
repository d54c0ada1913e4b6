print("tweetcache")
