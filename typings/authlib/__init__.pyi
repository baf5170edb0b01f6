# Stubs of the parts of authlib Sleuth's authorization server uses (authlib ships no types).
