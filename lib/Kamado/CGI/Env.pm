package Kamado::CGI::Env;
use 5.024;
use strict;
use warnings;

use Kamado ();

# The environment a CGI script gets: RFC 3875's meta-variables plus what
# Apache 2.4 adds, and nothing else (the server's own %ENV stays out,
# save PATH). Never REMOTE_HOST (Apache's HostnameLookups Off: scripts
# then do their own lookup) and never MOD_PERL (scripts switch behaviour
# on it). HTTP_PROXY is dropped (httpoxy), and Authorization is not passed,
# as Apache does not pass it. What the server's own environment should
# add goes through pass (Apache's PassEnv and SetEnv).

my %DROP = map { $_ => 1 } qw(HTTP_PROXY HTTP_AUTHORIZATION HTTP_PROXY_AUTHORIZATION);

# for(psgi_env, script => { name, filename, path_info, dir }, document_root => DIR,
#     context_prefix => PREFIX, context_root => DIR, pass => [NAME or NAME=VALUE...])
# The part that does not change from one request to the next (static)
# can be given, made once per script: static => static(same arguments).
sub for {
    my ($class, $env, %args) = @_;
    my $static = $args{static} // static($class, %args);
    my $script = $args{script};
    my $name = _server_name($env);
    my %cgi = (
        $static->{vars}->%*,
        SERVER_PROTOCOL   => $env->{SERVER_PROTOCOL},
        SERVER_NAME       => $name,
        SERVER_PORT       => $env->{SERVER_PORT},
        SERVER_ADDR       => $env->{SERVER_ADDR} // '127.0.0.1',
        REQUEST_METHOD    => $env->{REQUEST_METHOD},
        REQUEST_SCHEME    => $env->{'psgi.url_scheme'},
        REQUEST_URI       => $env->{REQUEST_URI},
        QUERY_STRING      => $env->{QUERY_STRING} // '',
        SCRIPT_NAME       => $script->{name},
        REMOTE_ADDR       => $env->{REMOTE_ADDR},
        REMOTE_PORT       => $env->{REMOTE_PORT},
        # Debian's apache2 has ServerSignature On
        SERVER_SIGNATURE  => "<address>$static->{vars}{SERVER_SOFTWARE} Server at $name Port "
                             . ($env->{SERVER_PORT} // '') . "</address>\n",
    );
    if (length $script->{path_info}) {
        $cgi{PATH_INFO} = $script->{path_info};
        # Apache maps the path info through the document root
        $cgi{PATH_TRANSLATED} = $args{document_root} . $script->{path_info};
    }
    $cgi{HTTPS} = 'on' if $env->{'psgi.url_scheme'} eq 'https';
    for my $key (qw(CONTENT_TYPE CONTENT_LENGTH)) {
        $cgi{$key} = $env->{$key} if defined $env->{$key} && length $env->{$key};
    }
    for my $key (keys %$env) {
        next if index($key, 'HTTP_') != 0 || $DROP{$key};
        $cgi{$key} = $env->{$key};
    }
    # PassEnv/SetEnv: --cgi-env NAME or NAME=VALUE (over what the request gave)
    @cgi{ keys $static->{pass}->%* } = values $static->{pass}->%*;
    delete @cgi{ grep { !defined $cgi{$_} } keys %cgi };
    return \%cgi;
}

sub static {
    my ($class, %args) = @_;
    my %pass;
    for my $pass (($args{pass} // [])->@*) {
        my ($name, $value) = split /=/, $pass, 2;
        $pass{$name} = $value // $ENV{$name};
    }
    return {
        vars => {
            GATEWAY_INTERFACE => 'CGI/1.1',
            SERVER_SOFTWARE   => "Kamado/$Kamado::VERSION",
            SERVER_ADMIN      => '[no address given]',    # Apache's, without ServerAdmin
            SCRIPT_FILENAME   => $args{script}{filename},
            DOCUMENT_ROOT     => $args{document_root},
            CONTEXT_PREFIX    => $args{context_prefix} // '',
            CONTEXT_DOCUMENT_ROOT => $args{context_root} // $args{document_root},
            PATH              => $ENV{PATH} // '/usr/local/bin:/usr/bin:/bin',
        },
        pass => \%pass,
    };
}

sub _server_name {
    my ($env) = @_;
    my $host = $env->{HTTP_HOST} // $env->{SERVER_NAME};
    $host =~ s/:\d+\z// unless $host =~ /\A\[[^\]]*\]\z/;
    return $host;
}

1;
__END__

=head1 NAME

Kamado::CGI::Env - the CGI meta-variables for a request

=cut
