package Kamado::ErrorResponse;
use 5.024;
use strict;
use warnings;

use Exporter 'import';
use HTTP::Status ();

our @EXPORT_OK = qw(error_response);

# The one shape of every answer the server writes itself from Perl, as
# the event loop writes its own (src/kd_answer.c): the reason phrase and a
# newline, as plain text.
sub error_response {
    my ($status, $detail) = @_;
    my $body = (HTTP::Status::status_message($status) // 'Error') . (defined $detail ? ": $detail" : '') . "\n";
    return [$status, ['Content-Type' => 'text/plain', 'Content-Length' => length $body], [$body]];
}

1;
__END__

=head1 NAME

Kamado::ErrorResponse - the answers the server writes itself

=head1 SYNOPSIS

    use Kamado::ErrorResponse qw(error_response);

    return error_response(404);    # [404, [...], ["Not Found\n"]]
    my $res = error_response(405);
    push $res->[1]->@*, Allow => 'GET, HEAD';

=head1 FUNCTIONS

=over

=item error_response($status[, $detail])

Returns a PSGI response whose body is
the status's reason phrase (from L<HTTP::Status>), then C<": $detail"> when
a detail is given, and a newline, as C<text/plain> with its
C<Content-Length>. The client reads the detail: it must not say more than
the client may know (the reasons for a 500 go to the error log). Headers
such as C<Location> or C<Allow> are pushed onto the response's header
list by the caller.

=back

=cut
