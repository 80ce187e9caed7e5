package store

// SetKeptCopied sets the function fillChanged calls between its two reads
// of the cache, and returns what restores it.
func SetKeptCopied(f func()) (restore func()) {
	old := keptCopied
	keptCopied = f
	return func() { keptCopied = old }
}

// SetSettleStarts sets the function CommitAside's goroutine calls before it
// goes on with the commit, and returns what restores it.
func SetSettleStarts(f func()) (restore func()) {
	old := settleStarts
	settleStarts = f
	return func() { settleStarts = old }
}
