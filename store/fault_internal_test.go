package store

// SetKeptCopied sets the function fillChanged calls between its two reads
// of the cache, and returns what restores it.
func SetKeptCopied(f func()) (restore func()) {
	old := keptCopied
	keptCopied = f
	return func() { keptCopied = old }
}
