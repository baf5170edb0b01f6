from authlib.oauth2.rfc6749 import AuthorizationServer as AuthorizationServer
