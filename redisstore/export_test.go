package redisstore

// StartRedis is startRedis for the external test package (example_test.go):
// a redis-server on a free loopback port for the test, stopped after it.
var StartRedis = startRedis
