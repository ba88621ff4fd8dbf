"""_mockfile"""
