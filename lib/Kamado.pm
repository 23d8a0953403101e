package Kamado;
use 5.024;
use strict;
use warnings;

our $VERSION = '0.01';

require XSLoader;
XSLoader::load('Kamado', $VERSION);

1;
__END__

=head1 NAME

Kamado - a fast PSGI server with an HTTP hot path in C and a prefork manager

=cut
