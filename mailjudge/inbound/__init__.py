"""Mail in: SMTP/LMTP listener, IMAP poller, the spool they feed, and mail parsing.

Nothing here knows about games; the service layer decides what a stored mail means.
"""
