package Kamado::CGI::Static;
use 5.024;
use strict;
use warnings;

use parent 'Plack::App::File';
use HTTP::Date ();
use Plack::Middleware::ConditionalGET;
use Kamado::Middleware::Range;
use Kamado::ErrorResponse qw(error_response);

# The static files of a CGI document root (Kamado::CGI::Mapper has
# decided the file may be sent): Plack::App::File sends it, with an ETag
# as Apache's (inode, size, mtime); Plack::Middleware::ConditionalGET
# answers 304; Kamado::Middleware::Range answers 206 and 416; If-Match
# and If-Unmodified-Since that do not hold are a 412, judged here first.
# ConditionalGET compares strings, and wants every validator the answer
# has (ETag and Last-Modified) matched: the request's are judged here as
# RFC 9110 says (If-None-Match weakly, as a list, *; without it,
# If-Modified-Since as Apache: not before the file's mtime, not in the
# future), and made what ConditionalGET looks for, or nothing.
#
#   my $app = Kamado::CGI::Static->app;
#   $app->({ %$env, 'kamado.cgi.static' => [$file, \@stat] });

sub app {
    my ($class) = @_;
    my $app = $class->new->to_app;
    $app = Plack::Middleware::ConditionalGET->wrap($app);
    return Kamado::Middleware::Range->wrap($app);
}

sub locate_file {
    my ($self, $env) = @_;
    return ($env->{'kamado.cgi.static'}[0], '');
}

sub serve_path {
    my ($self, $env, $file) = @_;
    my $method = $env->{REQUEST_METHOD};
    if ($method ne 'GET' && $method ne 'HEAD') {
        my $res = error_response(405);
        push $res->[1]->@*, Allow => 'GET, HEAD';
        return $res;
    }
    my $stat = $env->{'kamado.cgi.static'}[1];
    my $etag = sprintf '"%x-%x-%x"', $stat->[1], $stat->[7], $stat->[9];
    return error_response(412) unless _precondition($env, $etag, $stat->[9]);
    if (defined $env->{HTTP_IF_NONE_MATCH} || defined $env->{HTTP_IF_MODIFIED_SINCE}) {
        # (what ConditionalGET compares, as strings: both or neither)
        my $match = _not_modified($env, $etag, $stat->[9]);
        $env->{HTTP_IF_NONE_MATCH} = $match ? $etag : '';
        $env->{HTTP_IF_MODIFIED_SINCE} = $match ? HTTP::Date::time2str($stat->[9]) : '';
    }
    my $res = $self->SUPER::serve_path($env, $file);
    push $res->[1]->@*, 'ETag' => $etag if $res->[0] == 200;
    return $res;
}

# Whether the request's If-Match and If-Unmodified-Since hold (RFC 9110
# 13.2.2, as nginx and Apache judge them; false is a 412): If-Match
# compared strongly (a weak tag never matches), as a list, * included;
# without it, If-Unmodified-Since a date not before the file's mtime (a
# date that cannot be read is ignored).
sub _precondition {
    my ($env, $etag, $mtime) = @_;
    if (defined(my $list = $env->{HTTP_IF_MATCH})) {
        return scalar grep { $_ eq $etag || $_ eq '*' } split /\s*,\s*/, $list =~ s/\A\s+|\s+\z//gr;
    }
    my $header = $env->{HTTP_IF_UNMODIFIED_SINCE} // return 1;
    my $since = HTTP::Date::str2time($header =~ s/;.*//sr) // return 1;
    return $since >= $mtime;
}

# Whether the client's copy is current (RFC 9110 13.1.2, 13.1.3): If-None-Match
# compared weakly, as a list, * included; without it, If-Modified-Since
# as Apache: a date not before the file's mtime and not in the future.
sub _not_modified {
    my ($env, $etag, $mtime) = @_;
    if (defined(my $list = $env->{HTTP_IF_NONE_MATCH})) {
        return scalar grep { s/\AW\///r eq $etag || $_ eq '*' } split /\s*,\s*/, $list =~ s/\A\s+|\s+\z//gr;
    }
    my $since = HTTP::Date::str2time($env->{HTTP_IF_MODIFIED_SINCE} =~ s/;.*//sr) // return 0;
    return $since >= $mtime && $since <= time;
}

1;
__END__

=head1 NAME

Kamado::CGI::Static - sends a static file of a CGI document root: ETag, 304, Range

=head1 SYNOPSIS

    my $static = Kamado::CGI::Static->app;
    my $res = $static->({ %$env, 'kamado.cgi.static' => [$file, [stat $file]] });

=head1 DESCRIPTION

L<Plack::App::File> for the file the caller has chosen (C<kamado.cgi.static>:
the file and its C<stat>), with an C<ETag> as Apache's, 304 through
L<Plack::Middleware::ConditionalGET> (If-None-Match compared weakly, as a
list, C<*> included; If-Modified-Since, when there is no If-None-Match, as
Apache: a date not before the file's mtime and not in the future), 412 for
an C<If-Match> that names no tag of the file (compared strongly, C<*>
included) or, without it, an C<If-Unmodified-Since> before its mtime (as
nginx and Apache), and byte ranges through L<Kamado::Middleware::Range>. Methods other than GET and
HEAD are 405.

=cut
