// Package kafkaerr words errors of the Kafka client library for people:
// kafka-go prefixes its errors with the Go method that failed
// ("kafka.(*Client).Metadata: dial tcp …"), which says nothing to a user
// and leaks the library's internals into logs and the command line.
// Clean drops those prefixes and keeps the error chain intact, so
// errors.Is and errors.As still see the library's errors. It does no I/O
// and imports no Kafka package.
package kafkaerr
