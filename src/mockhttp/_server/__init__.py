"""_server"""
