"""What the tests share: mail servers on loopback, a judge to play by mail, the
reference engines and the measurements the tests and the soak runs read."""
